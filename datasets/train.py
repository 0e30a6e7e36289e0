"""Train the tile detector and the tile classifier on synthetic data and export both to ONNX.

One command regenerates the models (see ``models/MODEL_CARD.md`` for the recipe actually used)::

    python -m datasets.train --stage data|detector|classifier|all|export [--data DIR] [--crops DIR ...]
                             [--epochs N] [--imgsz S] [--resume] [--init WEIGHTS] [--fraction F]

``--stage all`` (the default) first renders the synthetic sets of :data:`DATA_RECIPE` that are missing
or incomplete (``--stage data`` does only that; an interrupted render continues where it stopped),
then trains the classifier and the detector and exports both.

* ``--data``: a detection dataset in ultralytics' layout with a ``data.yaml`` (written by
  ``python -m datasets.synth``; default ``$MAHJONG_SYNTH``, else ``synth-v2`` in
  :func:`datasets.paths.data_root`: ``$MAHJONG_DATA`` or the user cache directory).
* ``--crops``: a classifier crop set ``{train,val}/<tile code>/*.png`` made with
  :func:`vision.crops.crop_tile`; several may be given (default: ``<data>-crops/crops`` and
  ``<data>/crops``, those that exist).
* Runs (full ultralytics/torch state) go to ``runs/`` (git-ignored); ``--resume`` continues the last run
  of the stage from ``runs/<stage>/…/last.pt``; without a run there, it warm-starts from the committed
  weights in ``models/checkpoints/``.
* The result is exported to ``models/detector.onnx`` / ``models/classifier.onnx`` following
  ``models/CONTRACT.md`` (opset 17, onnxslim, metadata incl. ``data_hash``); small weights are
  written to ``models/checkpoints/`` so a later session can continue.

torch and ultralytics are only needed here (the ``train`` extra); inference uses onnxruntime only.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from vision.classes import CLASS_INDEX, CLASS_NAMES

from .paths import REPO, default_synth

RUNS = REPO / "runs"
MODELS = REPO / "models"
CHECKPOINTS = MODELS / "checkpoints"
OPSET = 17
VERSION = "2"  # bumped by hand when the recipe changes; also in the model card

#: classifier crop geometry — passed to vision.crops.crop_tile; recorded in the ONNX metadata
CLS_IMGSZ = 64
CLS_MARGIN = 0.10
CLS_RESIZE = "stretch"
CLS_ROTATION = "upright"
CLS_EPOCHS = 16
CLS_EPOCH_SIZE = 18000
DET_EPOCHS = 10
DET_IMGSZ = 416


#: the synthetic sets of the current models: (folder name suffix, ``python -m datasets.synth`` arguments);
#: ``""`` is the detection set ``--data`` itself, the others are ``<data>-<suffix>`` crop sets
DATA_RECIPE: list[tuple[str, list[str]]] = [
    ("", ["--images", "1100", "--seed", "2", "--span", "0.5", "0.9", "--upright-crops"]),
    ("close", ["--images", "2200", "--seed", "3", "--crops-only", "--close", "--upright-crops",
               "--face-crops", "0.5", "--size", "960x720"]),
    ("grid", ["--images", "400", "--seed", "4", "--crops-only", "--upright-crops", "--face-crops", "0.2"]),
]


#: the crop sets of the pretrained classifier (issue 18; ``--stage pretrained``): 128-px upright crops,
#: 60 % of the tile sets in the ``wide`` procedural styles (validation renders: held-out wide styles)
PRETRAINED_DATA_RECIPE: list[tuple[str, list[str]]] = [
    ("wide-close", ["--images", "2500", "--seed", "31", "--crops-only", "--close", "--upright-crops",
                    "--face-crops", "0.5", "--size", "960x720", "--wide-styles", "0.6", "--crop-size", "128"]),
    ("wide-grid", ["--images", "400", "--seed", "41", "--crops-only", "--upright-crops", "--face-crops", "0.2",
                   "--wide-styles", "0.6", "--crop-size", "128"]),
]


#: the crop sets of classifier version 4 (issue 18, item 4; ``--stage classifier-v4``), next to ``--data``
#: (default ``synth-v4``): the two sets of :data:`PRETRAINED_DATA_RECIPE` again (same options; the wide
#: styles' flower and season pictures changed since version 3, see ``datasets/README.md``), plus the same
#: two kinds of render with half of the tile sets drawn from the KDE / GNOME mahjongg tilesets of
#: ``datasets.extra_art`` (run ``python -m datasets.extra_art`` first)
CLASSIFIER_V4_DATA_RECIPE: list[tuple[str, list[str]]] = PRETRAINED_DATA_RECIPE + [
    ("extra-close", ["--images", "2000", "--seed", "61", "--crops-only", "--close", "--upright-crops",
                     "--face-crops", "0.5", "--size", "960x720", "--wide-styles", "0.3", "--extra-art", "0.5",
                     "--crop-size", "128"]),
    ("extra-grid", ["--images", "300", "--seed", "62", "--crops-only", "--upright-crops", "--face-crops", "0.2",
                    "--wide-styles", "0.3", "--extra-art", "0.5", "--crop-size", "128"]),
]


#: the detection sets of detector version 3 (issues 14 and 18): ``(folder name suffix, datasets.synth
#: arguments)`` next to ``--data`` (default ``synth-v3-det``), joined by :func:`write_joint_yaml` into one
#: ultralytics data set. ``base``: hands filling 50–90 % of the width as version 2's set, half of the
#: tile sets in the wide styles; ``hard``: the hard scenes of ``datasets/hard.py`` (every kind in turn)
#: with every clutter kind as unlabelled hard negatives, on the *training* palettes only — the
#: evaluation's hard-scene set (``--hard-split val``, its own seeds) stays unseen.
DETECTOR_DATA_RECIPE: list[tuple[str, list[str]]] = [
    ("base", ["--images", "800", "--seed", "51", "--span", "0.5", "0.9", "--no-crops", "--wide-styles", "0.5"]),
    ("hard", ["--images", "900", "--seed", "52", "--no-crops", "--wide-styles", "0.5", "--hard", "mixed",
              "--clutter", "keys,dominoes,dice,cards,text,coins,sticks,auto-parts", "--hard-split", "train"]),
]


#: detector version 4 (issue 14: bonus tiles lying sideways in touching columns, boxed two at a time
#: in a real photo): version 3's two sets (same options and seeds) and ``bonus``, hands filling 50–90 %
#: of the width, 80 % of those whose tile set has bonus tiles carrying 2–8 laid sideways in one or two touching columns
#: (``--bonus-columns``, :func:`datasets.scene.bonus_in_columns`), next to ``--data`` (default
#: ``synth-v4-det``).
DETECTOR_V4_DATA_RECIPE: list[tuple[str, list[str]]] = DETECTOR_DATA_RECIPE + [
    ("bonus", ["--images", "500", "--seed", "53", "--span", "0.5", "0.9", "--no-crops", "--wide-styles", "0.5",
               "--bonus-columns", "0.8"]),
]


def write_joint_yaml(data: Path, recipe: list[tuple[str, list[str]]]) -> Path:
    """Write ``data/data.yaml`` listing the train/val images of every set of ``recipe`` (rendered next to
    ``data`` as ``<data>-<suffix>``) as one ultralytics data set (classes ``tile``, ``back``). Returns the
    yaml's path. Source: ultralytics' dataset yaml, whose ``train``/``val`` may be lists of folders."""
    sets = [data.parent / f"{data.name}-{k}" for k, _ in recipe]
    data.mkdir(parents=True, exist_ok=True)
    lines = ["path: " + str(data.parent),
             "train: [" + ", ".join(f"{d.name}/images/train" for d in sets) + "]",
             "val: [" + ", ".join(f"{d.name}/images/val" for d in sets) + "]",
             "nc: 2", "names:", "  0: 'tile'", "  1: 'back'", ""]
    y = data / "data.yaml"
    y.write_text("\n".join(lines))
    return y


def write_subset_yaml(data: Path, recipe: list[tuple[str, list[str]]], every: int = 3) -> Path:
    """``<data>-subset/data.yaml`` training on every ``every``-th train image of the sets of ``recipe``
    (listed base set first, in name order; validation: all their val images) — the first phase of
    :func:`train_detector_v3`. Returns the folder."""
    sets = [data.parent / f"{data.name}-{k}" for k, _ in recipe]
    out = data.parent / f"{data.name}-subset"
    out.mkdir(parents=True, exist_ok=True)
    train = [p for d in sets for p in sorted((d / "images" / "train").glob("*.jpg"))]
    val = [p for d in sets for p in sorted((d / "images" / "val").glob("*.jpg"))]
    (out / "train.txt").write_text("".join(f"{p}\n" for i, p in enumerate(train, 1) if i % every == 0))
    (out / "val.txt").write_text("".join(f"{p}\n" for p in val))
    (out / "data.yaml").write_text(f"path: {out}\ntrain: {out / 'train.txt'}\nval: {out / 'val.txt'}\n"
                                   "nc: 2\nnames:\n  0: 'tile'\n  1: 'back'\n")
    return out


def train_detector_v3(data: Path, workers: int = 2, resume: bool = False, export: bool = True) -> Path:
    """Detector version 3 (issues 14, 18): render :data:`DETECTOR_DATA_RECIPE` next to ``data`` if
    missing, then from ``models/checkpoints/detector.pt`` (version 2) 3 epochs on every third training
    image (AdamW lr0 2e-3, warm-up 1 epoch; run ``detector-v3a``), then 5 epochs on all of them from
    that run's best weights (lr0 1e-3, no warm-up; run ``detector-v3b``), then 5 more from those (lr0
    5e-4; run ``detector-v3c``), 416 px; exports
    ``models/detector.onnx`` and the small checkpoint. ``resume`` continues an interrupted phase.
    Returns the best weights of the last phase. (The committed checkpoint is version 3 since that
    export: a re-run continues version 3; the version-2 weights are in the git history, commit fd4186a.)"""
    render_data(data, workers, DETECTOR_DATA_RECIPE)
    write_joint_yaml(data, DETECTOR_DATA_RECIPE)
    sub = write_subset_yaml(data, DETECTOR_DATA_RECIPE)
    def best(name: str) -> Path:
        return RUNS / name / "weights" / "best.pt"

    def done(name: str, epochs: int) -> bool:  # best weights and a results row per epoch (+ header)
        csv = RUNS / name / "results.csv"
        return best(name).exists() and csv.exists() and len(csv.read_text().splitlines()) > epochs

    if not done("detector-v3a", 3):
        train_detector(sub, 3, DET_IMGSZ, resume, name="detector-v3a", init=CHECKPOINTS / "detector.pt",
                       warmup=1.0, lr0=0.002, mosaic=0.3)
    if not done("detector-v3b", 5):
        train_detector(data, 5, DET_IMGSZ, resume, name="detector-v3b", init=best("detector-v3a"), warmup=0.0,
                       lr0=0.001, mosaic=0.3)
    w = train_detector(data, 5, DET_IMGSZ, resume, name="detector-v3c", init=best("detector-v3b"), warmup=0.0,
                       lr0=0.0005, mosaic=0.3)
    if export:
        print("exported", export_detector(w, data, DET_IMGSZ, version="3"), flush=True)
    return w


def train_detector_v4(data: Path, workers: int = 2, resume: bool = False, export: bool = True,
                      epochs: int = 3) -> Path:
    """Detector version 4 (issue 14): render :data:`DETECTOR_V4_DATA_RECIPE` next to ``data`` if missing,
    then from ``models/checkpoints/detector.pt`` (version 3) ``epochs`` epochs on all of its training
    images (AdamW lr0 5e-4, no warm-up, mosaic 0.3, 416 px; run ``detector-v4``); exports
    ``models/detector.onnx`` (metadata ``mahjong_version`` 4) and the small checkpoint. ``resume``
    continues an interrupted run. Returns the best weights."""
    render_data(data, workers, DETECTOR_V4_DATA_RECIPE)
    write_joint_yaml(data, DETECTOR_V4_DATA_RECIPE)
    w = train_detector(data, epochs, DET_IMGSZ, resume, name="detector-v4", init=CHECKPOINTS / "detector.pt",
                       warmup=0.0, lr0=0.0005, mosaic=0.3)
    if export:
        print("exported", export_detector(w, data, DET_IMGSZ, version="4"), flush=True)
    return w


def rendered_upto(folder: Path) -> int:
    """Index of the first image of a ``datasets.synth`` folder that is not complete: the lowest index
    missing from its ``done.txt`` (written by ``datasets.synth`` after all files of an image, so an
    image cut off half-written counts as missing). For a folder rendered before ``done.txt`` existed,
    the lowest index with no ``images/*/NNNNNN.jpg`` and no ``crops/*/*/NNNNNN_*.png``. 0 for an
    empty or absent folder."""
    from .synth import DONE_FILE, images_with_files

    if (folder / DONE_FILE).exists():
        have = {int(x) for x in (folder / DONE_FILE).read_text().split() if x.isdigit()}
    else:
        have = images_with_files(folder)
    i = 0
    while i in have:
        i += 1
    return i


def render_data(data: Path, workers: int = 2, recipe: list[tuple[str, list[str]]] | None = None) -> None:
    """Render the sets of :data:`DATA_RECIPE` next to ``data`` (continuing incomplete ones; an image
    depends only on seed and index, so continuing gives the same set as one uninterrupted run).

    Raises SystemExit when ``datasets.synth`` fails, e.g. when an existing folder was rendered with
    other options than the recipe's (``datasets.synth`` checks its ``synth-args.json``)."""
    from . import synth

    for suffix, args in (DATA_RECIPE if recipe is None else recipe):
        out = data if not suffix else data.parent / f"{data.name}-{suffix}"
        n = int(args[args.index("--images") + 1])
        start = rendered_upto(out)
        if start >= n:
            print(f"data: {out} complete ({n} images)", flush=True)
            continue
        print(f"data: rendering {out}, images {start}..{n - 1}", flush=True)
        rest = list(args)
        rest[rest.index("--images") + 1] = str(n - start)
        rc = synth.main(["--out", str(out), "--workers", str(workers), "--start", str(start)] + rest)
        if rc:
            raise SystemExit(f"datasets.synth failed for {out} (exit {rc})")


def default_data() -> Path:
    """The default synthetic dataset folder: ``$MAHJONG_SYNTH``, else ``synth-v2`` under
    :func:`datasets.paths.data_root` (``$MAHJONG_DATA`` or the user cache directory)."""
    return default_synth()


# ----------------------------------------------------------------------------- ultralytics set-up


def setup_ultralytics(threads: int = 2):
    """Make ultralytics offline and multi-threaded (see ../shared/TRAINING-NOTES.md); returns the module.

    Sets YOLO_OFFLINE, YOLO_CONFIG_DIR (``runs/yolo-config``, with a TTF copied in as Arial so no
    font download is attempted) and YOLO_AUTOINSTALL before the first import.
    """
    cfg = RUNS / "yolo-config"
    font_dir = cfg / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (font_dir / name).exists():
            src = _any_ttf()
            if src is not None:
                shutil.copy(src, font_dir / name)
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg))
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    import torch
    import ultralytics
    import ultralytics.utils.torch_utils as tu

    tu.NUM_THREADS = threads
    torch.set_num_threads(threads)
    return ultralytics


def _any_ttf() -> Path | None:
    for p in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
              "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"):
        if Path(p).exists():
            return Path(p)
    for p in Path("/usr/share/fonts").rglob("*.ttf"):
        return p
    return None


# ----------------------------------------------------------------------------- data hash / metadata


def data_hash(*dirs: Path) -> str:
    """sha256 (first 16 hex digits) of the data manifest: every file's relative path and size.

    Cheap (stat only) and changes whenever a file is added, removed or re-rendered to a new size.
    """
    h = hashlib.sha256()
    for d in dirs:
        d = Path(d)
        if not d.exists():
            continue
        files = sorted(p for p in d.rglob("*") if p.is_file() and not p.name.endswith(".cache"))
        for p in files:
            h.update(f"{p.relative_to(d).as_posix()}\t{p.stat().st_size}\n".encode())
    return h.hexdigest()[:16]


def set_metadata(onnx_path: Path, extra: dict[str, str]) -> None:
    """Add/replace string metadata_props of an ONNX file in place."""
    import onnx

    m = onnx.load(str(onnx_path))
    props = {p.key: p.value for p in m.metadata_props}
    props.update({k: str(v) for k, v in extra.items()})
    del m.metadata_props[:]
    for k, v in props.items():
        m.metadata_props.add(key=k, value=v)
    onnx.save(m, str(onnx_path))


def _today() -> str:
    return _dt.date.today().isoformat()


# ----------------------------------------------------------------------------- detector


def train_detector(data: Path, epochs: int, imgsz: int, resume: bool, arch: str = "yolov8n",
                   batch: int = 16, fraction: float = 1.0, mosaic: float = 0.5, name: str = "detector",
                   workers: int = 2, patience: int = 100, init: Path | None = None, warmup: float = 1.0,
                   lr0: float = 0.002) -> Path:
    """Train (or resume) the tile detector; returns the path of the final weights (.pt).

    Flips are off (glyphs are not mirror-symmetric); rotation, perspective, scale and HSV are on.
    """
    setup_ultralytics()
    from ultralytics import YOLO

    yaml_path = data / "data.yaml"
    if not yaml_path.exists():
        raise SystemExit(f"no data.yaml in {data}: render data first (python -m datasets.synth --out {data})")
    run_dir = RUNS / name
    last = run_dir / "weights" / "last.pt"
    if resume and last.exists():
        print(f"resuming {last}", flush=True)
        model = YOLO(str(last))
        model.train(resume=True)
        return run_dir / "weights" / "best.pt"
    start = f"{arch}.yaml"
    ck = CHECKPOINTS / "detector.pt"
    if init is not None:
        print(f"warm start from {init}", flush=True)
        start = str(init)
    elif resume and ck.exists():
        print(f"warm start from {ck}", flush=True)
        start = str(ck)
    model = YOLO(start)
    model.train(
        data=str(yaml_path), epochs=epochs, imgsz=imgsz, batch=batch, workers=workers, device="cpu",
        project=str(RUNS), name=name, exist_ok=True, pretrained=start.endswith(".pt"), amp=False, plots=False,
        fraction=fraction, patience=patience, cos_lr=False, cache="ram", warmup_epochs=warmup,
        optimizer="AdamW", lr0=lr0, lrf=0.1, close_mosaic=max(1, epochs // 5),
        # augmentation: no flips; mild rotation/perspective; colour on
        fliplr=0.0, flipud=0.0, degrees=8.0, perspective=0.0005, translate=0.1, scale=0.5,
        shear=2.0, hsv_h=0.03, hsv_s=0.6, hsv_v=0.4, mosaic=mosaic, mixup=0.0, erasing=0.0,
        seed=0, deterministic=False, verbose=True,
    )
    return run_dir / "weights" / "best.pt"


def detector_description(data: Path) -> str:
    """The exported detector's ``description`` metadata: the data set's folder name, never its path
    on the machine that trained it."""
    return f"Ultralytics YOLOv8n model trained on {Path(data).name} (renders of datasets.synth; see MODEL_CARD.md)"


def export_detector(weights: Path, data: Path, imgsz: int, out: Path = MODELS / "detector.onnx",
                    version: str = VERSION) -> Path:
    """Export detector weights to ONNX per the model contract and write its metadata."""
    setup_ultralytics()
    from ultralytics import YOLO

    model = YOLO(str(weights))
    f = model.export(format="onnx", opset=OPSET, imgsz=imgsz, simplify=True, dynamic=False, nms=False,
                     device="cpu")
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(f, out)
    names = model.names
    set_metadata(out, {
        "mahjong_model": "detector", "mahjong_version": version,
        "data_hash": data_hash(*([data / "labels"] if (data / "labels").exists()
                                 else sorted(data.parent.glob(f"{data.name}-*/labels")))),
        "trained": _today(), "classes_json": json.dumps([names[i] for i in sorted(names)]),
        # ultralytics writes the data file's full path here: a path of the training machine
        "description": detector_description(data),
    })
    CHECKPOINTS.mkdir(parents=True, exist_ok=True)
    _save_small_checkpoint(weights, CHECKPOINTS / "detector.pt")
    return out


def _save_small_checkpoint(weights: Path, dst: Path) -> None:
    """Copy ultralytics weights without optimizer state (fp16), a few MB, to ``dst``."""
    from ultralytics.utils.torch_utils import strip_optimizer

    tmp = dst.with_suffix(".tmp.pt")
    shutil.copy(weights, tmp)
    strip_optimizer(str(tmp))
    os.replace(tmp, dst)


# ----------------------------------------------------------------------------- classifier


def load_crops(crops: Path, split: str) -> tuple[np.ndarray, np.ndarray]:
    """All crops of one split as ``(N, S, S, 3)`` uint8 RGB and ``(N,)`` int64 class indices.

    Layout: ``crops/<split>/<tile code>/*.png``; unknown folder names raise ValueError.
    """
    import cv2

    xs, ys = [], []
    root = crops / split
    if not root.is_dir():
        raise SystemExit(f"no crop folder {root}")
    for d in sorted(root.iterdir()):
        if not d.is_dir():
            continue
        if d.name not in CLASS_INDEX:
            raise ValueError(f"unknown tile class folder {d}")
        for p in sorted(d.iterdir()):
            if p.suffix.lower() not in (".png", ".jpg", ".jpeg"):
                continue
            im = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if im is None:
                continue
            if im.shape[:2] != (CLS_IMGSZ, CLS_IMGSZ):
                im = cv2.resize(im, (CLS_IMGSZ, CLS_IMGSZ), interpolation=cv2.INTER_AREA)
            xs.append(im[..., ::-1])
            ys.append(CLASS_INDEX[d.name])
    return np.stack(xs), np.array(ys, np.int64)


def augment(batch: np.ndarray, rng: np.random.Generator, strong: bool = True) -> np.ndarray:
    """Augment a uint8 (B, S, S, 3) RGB batch for the rotation-invariant classifier.

    Every crop gets a random multiple of 90° rotation (pose invariance), a small affine jitter
    (±10°, scale 0.85–1.15, shift ±8 %, as an imperfect detector box would give), colour/brightness/
    contrast/white-balance changes, sometimes greyscale, blur, noise and a JPEG round trip.
    """
    import cv2

    B, S = batch.shape[0], batch.shape[1]
    out = np.empty_like(batch)
    for i in range(B):
        im = np.rot90(batch[i], int(rng.integers(4))).copy()
        if strong:
            a = rng.uniform(-10, 10)
            sc = rng.uniform(0.85, 1.15)
            M = cv2.getRotationMatrix2D((S / 2, S / 2), a, sc)
            M[:, 2] += rng.uniform(-0.08, 0.08, 2) * S
            sx, sy = rng.uniform(0.9, 1.1, 2)
            M[0] *= sx
            M[1] *= sy
            im = cv2.warpAffine(im, M, (S, S), borderMode=cv2.BORDER_REFLECT101 if rng.random() < 0.5
                                else cv2.BORDER_REPLICATE)
            f = im.astype(np.float32)
            f = f * rng.uniform(0.75, 1.25, 3)[None, None, :]  # white balance / colour cast
            f = (f - f.mean()) * rng.uniform(0.6, 1.3) + f.mean() + rng.uniform(-35, 35)
            if rng.random() < 0.15:
                g = f @ np.array([0.299, 0.587, 0.114], np.float32)
                f = np.repeat(g[..., None], 3, 2)
            u = rng.random()
            if u < 0.3:
                f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.4, 1.3))
            elif u < 0.4:
                k = int(rng.integers(3, 6))
                ker = np.zeros((k, k), np.float32)
                ker[k // 2] = 1.0 / k
                ker = cv2.warpAffine(ker, cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1), (k, k))
                f = cv2.filter2D(f, -1, ker / max(ker.sum(), 1e-6))
            if rng.random() < 0.4:
                f = f + rng.normal(0, rng.uniform(2, 10), f.shape)
            im = np.clip(f, 0, 255).astype(np.uint8)
            if rng.random() < 0.5:
                q = int(rng.integers(30, 95))
                ok, enc = cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, q])
                im = cv2.imdecode(enc, cv2.IMREAD_UNCHANGED)
        out[i] = im
    return out


def augment_torch(x, gen, p_grey: float = 0.15, p_blur: float = 0.35, p_noise: float = 0.4, turn_back: bool = True,
                  y=None):
    """Augment a float (B, 3, S, S) RGB 0..1 batch with whole-batch torch ops (the upright classifier's
    augmentation; ~20× cheaper than the per-crop numpy/OpenCV :func:`augment`).

    Per crop: affine jitter (rotation ±12°, scale 0.85–1.15, anisotropic stretch ±10 %, shift ±8 % —
    an imperfect detector box; border replicated), per-channel colour gains 0.75–1.25, contrast
    0.6–1.3, brightness ±0.14, greyscale (``p_grey``), Gaussian blur σ 0.4–1.4 via a per-crop
    depthwise convolution (``p_blur``), Gaussian noise σ 0.01–0.04 (``p_noise``). No 90° turns (the
    glyph stays upright) except for backs (class ``0x``, given ``y``) when ``turn_back``.
    ``gen``: a torch.Generator (reproducible per epoch).
    """
    import math as _m

    import torch
    import torch.nn.functional as F

    B, _, S, _ = x.shape

    def U(lo, hi, *shape):
        return torch.rand(*(shape or (B,)), generator=gen) * (hi - lo) + lo

    if turn_back and y is not None:
        backs = torch.nonzero(y == CLASS_INDEX["0x"]).flatten()
        if len(backs):
            k = int(torch.randint(1, 4, (1,), generator=gen))
            x = x.clone()
            x[backs] = torch.rot90(x[backs], k, dims=(2, 3))
    a = U(-12, 12) * (_m.pi / 180)
    sc = U(0.85, 1.15)
    sx, sy = sc * U(0.9, 1.1), sc * U(0.9, 1.1)
    cos, sin = torch.cos(a), torch.sin(a)
    theta = torch.stack([torch.stack([cos / sx, -sin / sx, U(-0.16, 0.16)], 1),
                         torch.stack([sin / sy, cos / sy, U(-0.16, 0.16)], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    x = x * U(0.75, 1.25, B, 3, 1, 1)
    m = x.mean((1, 2, 3), keepdim=True)
    x = (x - m) * U(0.6, 1.3, B, 1, 1, 1) + m + U(-0.14, 0.14, B, 1, 1, 1)
    g = (x * torch.tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1)).sum(1, keepdim=True).expand(-1, 3, -1, -1)
    x = torch.where((torch.rand(B, 1, 1, 1, generator=gen) < p_grey), g, x)
    # blur: a 5×5 Gaussian per crop (σ 0.4–1.4) for a share of the batch, identity for the rest
    sig = U(0.4, 1.4)
    r = torch.arange(5, dtype=torch.float32) - 2
    k1 = torch.exp(-(r[None] ** 2) / (2 * sig[:, None] ** 2))
    k1 = k1 / k1.sum(1, keepdim=True)
    ident = torch.zeros(5)
    ident[2] = 1
    k1 = torch.where((torch.rand(B, 1, generator=gen) < p_blur), k1, ident[None])
    k2 = (k1[:, :, None] * k1[:, None, :]).repeat_interleave(3, 0)[:, None]  # (B*3, 1, 5, 5)
    x = F.conv2d(F.pad(x.reshape(1, B * 3, S, S), (2, 2, 2, 2), mode="replicate"), k2, groups=B * 3).reshape(B, 3, S, S)
    noise = torch.randn(x.shape, generator=gen) * U(0.01, 0.04, B, 1, 1, 1)
    x = x + noise * (torch.rand(B, 1, 1, 1, generator=gen) < p_noise)
    return x.clamp_(0, 1)


def real_crops(size: int = CLS_IMGSZ, margin: float = CLS_MARGIN, resize: str = CLS_RESIZE):
    """The real single-tile photos of ``../shared/data/crops-real`` as classifier inputs made like
    ``datasets.evaluate.eval_crops`` does (whole photo = the grown box): ``(N, S, S, 3)`` uint8, labels;
    None when the folder is absent. For reporting only — never used to choose anything."""
    import csv

    from vision.crops import crop_tile

    from .evaluate import load_photo
    from .paths import shared_dir

    sh = shared_dir()
    root = None if sh is None else sh / "data" / "crops-real"
    if root is None or not (root / "labels.csv").exists():
        return None
    xs, ys = [], []
    for r in csv.DictReader(open(root / "labels.csv")):
        if r["tile"] not in CLASS_INDEX:
            continue
        img = load_photo(root / r["image"])
        H, W = img.shape[:2]
        f = margin / (1 + 2 * margin)
        xs.append(crop_tile(img, (W * f, H * f, W * (1 - f), H * (1 - f)), size, margin, resize))
        ys.append(CLASS_INDEX[r["tile"]])
    return np.stack(xs), np.array(ys, np.int64)


def resume_run(last: Path, model, opt, sched) -> tuple[int, float]:
    """Load a classifier run's resumable state ``last`` (``last.pt``: model, optimizer, schedule) into
    them; returns (the next epoch, the best synthetic-val top-1 so far)."""
    import torch

    st = torch.load(last, weights_only=False)
    model.load_state_dict(st["model"])
    opt.load_state_dict(st["opt"])
    sched.load_state_dict(st["sched"])
    return st["epoch"] + 1, st["best"]


def save_epoch(run_dir: Path, model, opt, sched, epoch: int, best: float, acc: float, real_acc: float,
               meta: dict, last_only: dict | None = None) -> float:
    """After an epoch: the resumable state to ``run_dir/last.pt`` (written to ``last.tmp`` and moved
    over, so a kill never leaves a broken one; ``meta`` and ``last_only`` ride along), and when ``acc``
    (synthetic-val top-1) ≥ ``best`` the weights with ``meta``, the epoch, ``val_top1`` and
    ``real_top1`` to ``run_dir/best.pt``. Returns the new best."""
    import torch

    state = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": epoch,
             "best": max(best, acc), **meta, **(last_only or {})}
    torch.save(state, run_dir / "last.tmp")
    os.replace(run_dir / "last.tmp", run_dir / "last.pt")
    if acc >= best:
        best = acc
        torch.save({"model": model.state_dict(), **meta, "epoch": epoch, "val_top1": acc, "real_top1": real_acc},
                   run_dir / "best.pt")
    return best


def build_classifier(arch: str = "tilenet"):
    """The classifier network (logits in training): ``tilenet`` — our 8-conv BN/ReLU net (0.6 M
    parameters, 64 px → 4×4×256 → 43), which started learning much sooner than ultralytics'
    ``yolov8n-cls`` on these crops (measured: yolov8n-cls stayed at chance loss for 180 steps) — or
    ``yolov8n-cls`` / ``yolo11n-cls`` built from ultralytics' yaml."""
    import torch.nn as nn

    if arch == "tilenet":
        def cbr(i, o, s):
            return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

        return nn.Sequential(cbr(3, 32, 2), cbr(32, 32, 1), cbr(32, 64, 2), cbr(64, 64, 1), cbr(64, 128, 2),
                             cbr(128, 128, 1), cbr(128, 256, 2), cbr(256, 256, 1),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(256, len(CLASS_NAMES)))
    setup_ultralytics()
    from ultralytics.nn.tasks import ClassificationModel

    m = ClassificationModel(f"{arch}.yaml", nc=len(CLASS_NAMES), verbose=False)
    m.names = dict(enumerate(CLASS_NAMES))
    return m


def _to_tensor(batch: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(batch.transpose(0, 3, 1, 2))).float().div_(255.0)


def evaluate_classifier_torch(model, X: np.ndarray, Y: np.ndarray, bs: int = 256) -> float:
    """Top-1 accuracy of a torch classifier on uint8 crops (no augmentation)."""
    import torch

    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(_to_tensor(X[i:i + bs]))
            logits = out[1] if isinstance(out, tuple) else out
            correct += int((logits.argmax(1).numpy() == Y[i:i + bs]).sum())
    return correct / max(len(X), 1)


def train_classifier(crops: Path | list[Path], epochs: int, resume: bool, arch: str = "tilenet", batch: int = 64,
                     lr: float = 3e-3, name: str = "classifier", seed: int = 0, init: Path | None = None,
                     epoch_size: int = 0, smoothing: float = 0.05, rotation: str | None = None,
                     turned: float = 0.25, turned_weight: float = 0.5) -> Path:
    """Train (or resume) the 43-class tile classifier with our own torch loop; returns best weights.

    ``rotation`` (default :data:`CLS_ROTATION`): ``upright`` — crops are upright-normalised
    (``datasets.synth --upright-crops``) and augmented on whole batches by :func:`augment_torch`;
    ``invariant`` — the old per-crop :func:`augment` with random quarter turns. ``epoch_size``: crops
    drawn (without replacement) per epoch, 0 = all. ``turned`` (upright only): that fraction of each
    batch is added again turned by 90°/180°/270° (backs excepted) with a *uniform* target, weighted
    ``turned_weight`` — so a turned tile gets a flat, unconfident reading and inference
    (``vision.classify``, which keeps the most confident of the turns it tries) prefers the turn that
    shows the glyph upright. Measured on synthetic validation hand crops: without it, trying turns
    made the reading worse than never turning. The best epoch is chosen by synthetic validation
    top-1; real-crop top-1 is printed beside it for reporting only.

    Each epoch's state (model, optimizer, scheduler, epoch, rng) is saved to
    ``runs/<name>/last.pt``; ``--resume`` continues from it, else warm-starts from
    ``models/checkpoints/classifier.pt`` when that exists.
    """
    import torch

    rotation = rotation or CLS_ROTATION

    setup_ultralytics()
    run_dir = RUNS / name
    run_dir.mkdir(parents=True, exist_ok=True)
    dirs = [crops] if isinstance(crops, Path) else list(crops)
    parts = [(load_crops(d, "train"), load_crops(d, "val")) for d in dirs]
    Xtr = np.concatenate([p[0][0] for p in parts])
    Ytr = np.concatenate([p[0][1] for p in parts])
    Xva = np.concatenate([p[1][0] for p in parts])
    Yva = np.concatenate([p[1][1] for p in parts])
    print(f"classifier data: {len(Xtr)} train / {len(Xva)} val crops, {np.bincount(Ytr, minlength=43).min()} min per class",
          flush=True)
    real = real_crops()
    model = build_classifier(arch)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    n_epoch = min(epoch_size or len(Xtr), len(Xtr))
    steps_per_epoch = (n_epoch + batch - 1) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps_per_epoch, pct_start=0.15)
    start_epoch, best = 0, -1.0
    last = run_dir / "last.pt"
    if resume and last.exists():
        start_epoch, best = resume_run(last, model, opt, sched)
        print(f"resuming {last} at epoch {start_epoch}", flush=True)
    elif init is not None or (resume and (CHECKPOINTS / "classifier.pt").exists()):
        src = init or CHECKPOINTS / "classifier.pt"
        st = torch.load(src, weights_only=False)
        model.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in st["model"].items()})
        print(f"warm start from {src}", flush=True)
    lossf = torch.nn.CrossEntropyLoss(label_smoothing=smoothing)
    for ep in range(start_epoch, epochs):
        rng = np.random.default_rng([seed, ep])
        gen = torch.Generator().manual_seed(int(seed) * 1000 + ep)
        perm = rng.permutation(len(Xtr))[:n_epoch]
        model.train()
        t0, tot, n = time.time(), 0.0, 0
        for b in range(steps_per_epoch):
            idx = np.sort(perm[b * batch:(b + 1) * batch])
            yb = torch.from_numpy(Ytr[idx])
            xt = None
            if rotation == "upright":
                xb = augment_torch(_to_tensor(Xtr[idx]), gen, y=yb)
                faces = torch.nonzero(yb != CLASS_INDEX["0x"]).flatten()[: int(round(turned * len(idx)))]
                if len(faces):
                    ks = torch.randint(1, 4, (len(faces),), generator=gen)
                    xt = torch.stack([torch.rot90(xb[j], int(k), dims=(1, 2)) for j, k in zip(faces, ks)])
            else:
                xb = _to_tensor(augment(Xtr[idx], rng))
            if xt is None:
                loss = lossf(model(xb), yb)
            else:
                out = model(torch.cat([xb, xt]))
                loss = lossf(out[:len(xb)], yb) - turned_weight * torch.log_softmax(out[len(xb):], 1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
            n += len(idx)
            if b % 50 == 49:
                print(f"  step {b + 1}/{steps_per_epoch} loss {tot / n:.4f} ({time.time() - t0:.0f} s)", flush=True)
        acc = evaluate_classifier_torch(model, Xva, Yva)
        racc = evaluate_classifier_torch(model, *real) if real is not None else float("nan")
        print(f"epoch {ep + 1}/{epochs} loss {tot / n:.4f} val top1 {acc:.4f} real-crops top1 {racc:.4f} "
              f"(reporting only) ({time.time() - t0:.0f} s)", flush=True)
        best = save_epoch(run_dir, model, opt, sched, ep, best, acc, racc, {"arch": arch, "rotation": rotation})
    return run_dir / "best.pt"


def export_classifier(weights: Path, crops: Path | list[Path], out: Path = MODELS / "classifier.onnx",
                      checkpoint: bool = True) -> Path:
    """Export classifier weights to ONNX (softmax inside, dynamic batch) and write its metadata;
    with ``checkpoint`` also the fp16 weights to ``models/checkpoints/classifier.pt``."""
    import torch

    st = torch.load(weights, weights_only=False)
    arch = st.get("arch", "tilenet")
    net = build_classifier(arch)
    net.load_state_dict({k: v.float() for k, v in st["model"].items()})
    net.eval()

    class Probs(torch.nn.Module):  # logits → softmax probabilities inside the graph (contract)
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            y = self.m(x)
            return torch.softmax(y[1] if isinstance(y, tuple) else y, 1)

    model = Probs(net).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    x = torch.zeros(1, 3, CLS_IMGSZ, CLS_IMGSZ)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".raw.onnx")
    torch.onnx.export(model, x, str(tmp), opset_version=OPSET, input_names=["images"], output_names=["probs"],
                      dynamic_axes={"images": {0: "batch"}, "probs": {0: "batch"}}, dynamo=False)
    import onnx
    import onnxslim

    slim = onnxslim.slim(onnx.load(str(tmp)))
    onnx.save(slim, str(out))
    tmp.unlink()
    set_metadata(out, {
        "names": json.dumps(CLASS_NAMES), "imgsz": json.dumps([CLS_IMGSZ, CLS_IMGSZ]), "task": "classify",
        "crop_margin": str(CLS_MARGIN), "crop_resize": CLS_RESIZE, "rotation": st.get("rotation", "invariant"),
        "mahjong_model": "classifier", "mahjong_version": VERSION, "data_hash": data_hash(*([crops] if isinstance(crops, Path) else crops)), "trained": _today(),
        "classes_json": json.dumps(CLASS_NAMES), "val_top1_synth": f"{st.get('val_top1', st.get('best', float('nan'))):.4f}",
    })
    if not checkpoint:
        return out
    CHECKPOINTS.mkdir(parents=True, exist_ok=True)
    torch.save({"model": {k: (v.half() if v.is_floating_point() else v) for k, v in net.state_dict().items()}, "arch": arch,
                "rotation": st.get("rotation", "invariant")},
               CHECKPOINTS / "classifier.pt")
    return out


# ----------------------------------------------------------------------------- CLI


def recipe_crop_dirs(base: Path, recipe: list[tuple[str, list[str]]]) -> list[Path]:
    """The crop folders of a crop-set recipe rendered next to ``base``: ``<base>-<suffix>/crops``."""
    return [base.parent / f"{base.name}-{k}" / "crops" for k, _ in recipe]


def default_crops(data: Path) -> list[Path]:
    """The classifier crop folders that go with detection set ``data``: ``<data>-close/crops``,
    ``<data>-grid/crops``, ``<data>-crops/crops`` and ``<data>/crops``, those that exist."""
    cands = [data.parent / f"{data.name}-{k}" / "crops" for k in ("close", "grid", "crops")] + [data / "crops"]
    return [d for d in cands if d.is_dir()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.train", description=__doc__.split("\n")[0])
    ap.add_argument("--stage", choices=("data", "detector", "classifier", "all", "export", "pretrained", "detector-v3",
                                           "detector-v4", "classifier-v4"),
                    default="all",
                    help="pretrained: render PRETRAINED_DATA_RECIPE next to --data (default synth-v3), fine-tune "
                         "EfficientNet-Lite0 and the version-2 tilenet on it (datasets.pretrained.RECIPE_*; --resume "
                         "continues runs/<name>/last.pt), export their product ensemble")
    ap.add_argument("--workers", type=int, default=2, help="render processes for the data stage")
    ap.add_argument("--data", type=Path, default=None, help="detection dataset folder with data.yaml")
    ap.add_argument("--crops", type=Path, nargs="+", default=None,
                    help="classifier crop folder(s) (default: <data>-close, <data>-grid, <data>-crops, <data> crops)")
    ap.add_argument("--init", type=Path, default=None,
                    help="start from these weights (new schedule); detector default: models/checkpoints/detector.pt")
    ap.add_argument("--scratch", action="store_true", help="detector: start from the yaml, not the checkpoint")
    ap.add_argument("--lr", type=float, default=3e-3, help="classifier peak learning rate")
    ap.add_argument("--epochs", type=int, default=None,
                    help=f"epochs of each stage trained (default: detector {DET_EPOCHS}, classifier {CLS_EPOCHS})")
    ap.add_argument("--epoch-size", type=int, default=CLS_EPOCH_SIZE, help="classifier crops per epoch (0: all)")
    ap.add_argument("--smoothing", type=float, default=0.05, help="classifier label smoothing")
    ap.add_argument("--rotation", choices=("upright", "invariant"), default=CLS_ROTATION,
                    help="classifier pose handling (metadata 'rotation')")
    ap.add_argument("--imgsz", type=int, default=DET_IMGSZ, help="detector input size (px)")
    ap.add_argument("--arch", default=None, help="yolov8n / yolo11n (detector), yolov8n-cls (classifier)")
    ap.add_argument("--fraction", type=float, default=1.0, help="fraction of the detector train set to use")
    ap.add_argument("--mosaic", type=float, default=0.3)
    ap.add_argument("--batch", type=int, default=16, help="detector batch size")
    ap.add_argument("--lr0", type=float, default=0.001, help="detector AdamW learning rate")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--no-export", action="store_true")
    a = ap.parse_args(argv)
    if a.stage == "detector-v3":
        base = a.data or default_synth("synth-v3-det")
        train_detector_v3(base, a.workers, a.resume, export=not a.no_export)
        return 0
    if a.stage == "detector-v4":
        base = a.data or default_synth("synth-v4-det")
        train_detector_v4(base, a.workers, a.resume, export=not a.no_export, epochs=a.epochs or 3)
        return 0
    if a.stage == "classifier-v4":
        from . import pretrained

        base = a.data or default_synth("synth-v4")
        render_data(base, a.workers, CLASSIFIER_V4_DATA_RECIPE)
        dirs = a.crops or recipe_crop_dirs(base, CLASSIFIER_V4_DATA_RECIPE)
        we, wt = pretrained.train_v4(dirs, resume=a.resume)
        if not a.no_export:
            print("exported", pretrained.export_ensemble(we, MODELS / "classifier.onnx", dirs, second=wt, version="4"))
            pretrained.save_fp16(we, CHECKPOINTS / pretrained.CKPT_EFFNET_V4)
        return 0
    if a.stage == "pretrained":
        from . import pretrained

        base = a.data or default_synth("synth-v3")
        render_data(base, a.workers, PRETRAINED_DATA_RECIPE)
        dirs = a.crops or recipe_crop_dirs(base, PRETRAINED_DATA_RECIPE)
        we = pretrained.train(dirs, **pretrained.RECIPE_EFFNET, resume=a.resume)
        wt = pretrained.train(dirs, **pretrained.RECIPE_TILENET, resume=a.resume)
        if not a.no_export:
            print("exported", pretrained.export_ensemble(we, MODELS / "classifier.onnx", dirs, second=wt))
            pretrained.save_fp16(we, CHECKPOINTS / pretrained.CKPT_EFFNET)
            pretrained.save_fp16(wt, CHECKPOINTS / pretrained.CKPT_TILENET)
        return 0
    data = a.data or default_data()
    crops = a.crops or default_crops(data)
    t0 = time.time()
    if a.stage in ("data", "all"):
        render_data(data, a.workers)
        crops = a.crops or default_crops(data)
    if a.stage in ("classifier", "all"):
        w = train_classifier(crops, a.epochs or CLS_EPOCHS, a.resume,
                             arch=a.arch if a.stage == "classifier" and a.arch else "tilenet",
                             lr=a.lr, init=a.init if a.stage == "classifier" else None, epoch_size=a.epoch_size,
                             smoothing=a.smoothing, rotation=a.rotation)
        if not a.no_export:
            print("exported", export_classifier(w, crops), flush=True)
        print(f"classifier done at {time.time() - t0:.0f} s", flush=True)
    if a.stage in ("detector", "all"):
        init = a.init if a.stage == "detector" else None
        if init is None and not a.scratch and (CHECKPOINTS / "detector.pt").exists():
            init = CHECKPOINTS / "detector.pt"
        w = train_detector(data, a.epochs or DET_EPOCHS, a.imgsz, a.resume,
                           arch=a.arch if a.stage == "detector" and a.arch else "yolov8n", fraction=a.fraction,
                           mosaic=a.mosaic, init=init, warmup=0.0 if init else 1.0, batch=a.batch, lr0=a.lr0)
        if not a.no_export:
            print("exported", export_detector(w, data, a.imgsz), flush=True)
    if a.stage == "export":
        print("exported", export_detector(RUNS / "detector" / "weights" / "best.pt", data, a.imgsz))
        print("exported", export_classifier(RUNS / "classifier" / "best.pt", crops))
    print(f"done in {time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
