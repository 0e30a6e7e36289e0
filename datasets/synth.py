"""Synthetic dataset command: renders of finished mahjong hands with YOLO labels, crops and hand JSON.

    python -m datasets.synth --out DIR --images N --seed S --workers W [--size 1280x960]
                             [--det-classes tile|tile-back|all] [--crops-only] [--val-every 10]

Image ``i`` depends only on ``(seed, i)`` and the options (never on ``--workers``). Layout of DIR and the
label formats are documented in ``datasets/README.md``.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.classes import BACK, CLASS_INDEX, CLASS_NAMES

DET_CLASSES = {
    "tile": ["tile"],
    "tile-back": ["tile", "back"],
    "all": list(CLASS_NAMES),
}


def det_class(shown: str, scheme: str) -> int:
    """Detector class id of a tile showing ``shown`` (a code or "0x") under a class scheme."""
    if scheme == "tile":
        return 0
    if scheme == "tile-back":
        return 1 if shown == BACK else 0
    return CLASS_INDEX[shown]


#: per output folder: the options that decide the images (checked when a set is extended) and the
#: indices of the images whose files are all written (one per line, in completion order)
ARGS_FILE = "synth-args.json"
DONE_FILE = "done.txt"


def images_with_files(out: Path) -> set[int]:
    """Indices of the images of folder ``out`` that have any file (``images/*/NNNNNN.jpg`` or
    ``crops/*/*/NNNNNN_*.png``) — what a folder rendered before :data:`DONE_FILE` existed says of
    itself (a half-written image counts)."""
    return {int(p.stem[:6]) for pat in ("images/*/*.jpg", "crops/*/*/*.png") for p in out.glob(pat)
            if p.stem[:6].isdigit()}


def split_of(i: int, val_every: int) -> str:
    """``val`` for every ``val_every``-th image (i % val_every == val_every - 1), else ``train``."""
    return "val" if val_every > 0 and i % val_every == val_every - 1 else "train"


def write_data_yaml(out: Path, scheme: str) -> Path:
    """Ultralytics dataset file (absolute ``path``, train/val image folders, names)."""
    names = DET_CLASSES[scheme]
    lines = [f"path: {out.resolve()}", "train: images/train", "val: images/val", f"nc: {len(names)}", "names:"]
    lines += [f"  {i}: '{n}'" for i, n in enumerate(names)]
    p = out / "data.yaml"
    p.write_text("\n".join(lines) + "\n")
    return p


def _crop(img: np.ndarray, box, rng: np.random.Generator, size: int, margin: float, resize: str) -> np.ndarray | None:
    """A classifier crop like inference makes (:func:`vision.crops.crop_tile`), from a box jittered by up to
    ±4 % of its size per edge as an imperfect detector would give: (size, size, 3) uint8."""
    from vision.crops import crop_tile

    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    j = rng.uniform(-0.04, 0.04, 4)
    b = (x0 + j[0] * bw, y0 + j[1] * bh, x1 + j[2] * bw, y1 + j[3] * bh)
    if b[2] - b[0] < 4 or b[3] - b[1] < 4:
        return None
    return crop_tile(img, b, size, margin, resize)


def upright_turn(quad, pose: str) -> int | None:
    """Quarter turns ``k`` such that ``np.rot90(crop, k)`` shows the tile's glyph upright.

    ``quad``: the face's corners tl, tr, br, bl *of the glyph* in image pixels (meta ``quad``) or None;
    the glyph's up direction (bottom edge midpoint → top edge midpoint) is rounded to the nearest of
    up (0), right (1: the glyph's top points right, one counter-clockwise turn), down (2), left (3).
    Without a quad: ``upright`` → 0, ``upside-down`` → 2, ``face-down`` → 0, ``sideways`` → None
    (the side is unknown).
    """
    if quad is not None:
        q = np.asarray(quad, float)
        v = (q[0] + q[1]) / 2 - (q[3] + q[2]) / 2
        ang = np.degrees(np.arctan2(-v[1], v[0]))  # 90 = up in the image
        return int(round(((90 - ang) % 360) / 90)) % 4
    return {"upright": 0, "upside-down": 2, "face-down": 0}.get(pose)


_OPTS: dict = {}


def hard_for(o: dict, i: int):
    """The :class:`datasets.hard.HardScene` of image ``i`` under the options ``o`` (None without
    ``--hard``): ``--hard mixed`` cycles through every kind, with 1–3 clutter kinds drawn per image
    unless ``--clutter`` names them."""
    kind = o.get("hard")
    if not kind:
        return None
    from . import hard

    if kind == "mixed":
        sc = hard.hard_val_scene(i)
        return hard.HardScene(kind=sc.kind, clutter=tuple(o["clutter"]) if o.get("clutter") else sc.clutter,
                              split=o.get("hard_split") or "train")
    return hard.HardScene(kind=kind, clutter=tuple(o.get("clutter") or ()), split=o.get("hard_split") or "train")


def _init(opts: dict) -> None:
    cv2.setNumThreads(1)
    _OPTS.clear()
    _OPTS.update(opts)


def render_one(i: int) -> dict:
    """Render image ``i`` and write its files; returns counts for the summary."""
    from .scene import render_scene, tile_record

    o = _OPTS
    out, W, H = Path(o["out"]), o["W"], o["H"]
    split = split_of(i, o["val_every"])
    name = f"{i:06d}"
    sc = render_scene(o["seed"], i, W, H, sources=o.get("sources"), crops_only=o["crops_only"],
                      close=o.get("close", False), span=o.get("span"), style_split=split,
                      hard=hard_for(o, i), bonus_columns=o.get("bonus_columns", 0.0))
    rng = np.random.default_rng([o["seed"], i, 77])
    # the JPEG as it will be read back: crops come from it, like a detector's
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(sc.image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, sc.jpeg_quality])
    jpg = buf.tobytes()
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    counts = {"tiles": len(sc.tiles), "crops": 0, "index": i}
    if not o["crops_only"]:
        (out / "images" / split / f"{name}.jpg").write_bytes(jpg)
        lines = []
        for t in sc.tiles:
            x0, y0, x1, y1 = t.xyxy
            cls = det_class(t.placed.shown, o["det"])
            lines.append(f"{cls} {(x0 + x1) / 2 / W:.6f} {(y0 + y1) / 2 / H:.6f} {(x1 - x0) / W:.6f} {(y1 - y0) / H:.6f}")
        (out / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
        hand = sc.hand
        meta = {
            "image": f"images/{split}/{name}.jpg", "width": W, "height": H, "seed": o["seed"], "index": i,
            "hand": hand.notation(), "winning": hand.winning, "size": hand.size, "shape": hand.shape,
            "tiles": [tile_record(t) for t in sc.tiles],
            "rows": sc.rows, "melds": sc.melds, "bonus": list(hand.bonus), "scene": sc.info,
        }
        (out / "meta" / split / f"{name}.json").write_text(json.dumps(meta, ensure_ascii=False, separators=(",", ":")))
    # crops: every hand tile that is whole and unoccluded, plus a few distractors
    cand = [k for k, t in enumerate(sc.tiles) if t.visible >= 0.9 and not t.truncated
            and min(t.xyxy[2] - t.xyxy[0], t.xyxy[3] - t.xyxy[1]) >= 12]
    hand_c = [k for k in cand if sc.tiles[k].placed.role != "distractor"]
    dis_c = [k for k in cand if sc.tiles[k].placed.role == "distractor"]
    if dis_c:
        dis_c = list(rng.permutation(dis_c)[: o["max_distractor_crops"]])
    if o["crops"]:
        for k in sorted(hand_c + [int(x) for x in dis_c]):
            t = sc.tiles[k]
            box, tag = t.xyxy, ""
            if o.get("face_crops", 0.0) > 0 and t.quad is not None and rng.random() < o["face_crops"]:
                q = np.asarray(t.quad, float)  # the face cap only, like a close-up photo of the face
                box, tag = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()), "f"
            turn = 0
            if o.get("upright"):
                turn = upright_turn(t.quad, t.placed.pose)
                if turn is None:
                    continue
            c = _crop(decoded, box, rng, o["crop_size"], o["crop_margin"], o["crop_resize"])
            if c is None:
                continue
            if turn:
                c = np.ascontiguousarray(np.rot90(c, turn))
            d = out / "crops" / split / t.placed.shown
            d.mkdir(parents=True, exist_ok=True)
            suffix = f"_r{turn * 90}{tag}" if o.get("upright") else ""
            cv2.imwrite(str(d / f"{name}_{k}{suffix}.png"), c)
            counts["crops"] += 1
    return counts


def _with_share(srcs: dict[str, float], share: float, new: list[str]) -> dict[str, float]:
    """Art-source weights with the sources ``new`` given ``share`` of the total (split evenly) and the
    others scaled to the rest (dropped when ``share`` is 1)."""
    tot_w = sum(srcs.values())
    out = {k: v / tot_w * (1 - share) for k, v in srcs.items() if share < 1}
    out |= {k: share / len(new) for k in new}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.synth", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--images", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--size", default="1280x960", help="WIDTHxHEIGHT of every image")
    ap.add_argument("--det-classes", default="tile-back", choices=sorted(DET_CLASSES))
    ap.add_argument("--crops-only", action="store_true",
                    help="render class-balanced grids of tiles and write only crops (classifier data)")
    ap.add_argument("--no-crops", action="store_true", help="skip writing crops")
    ap.add_argument("--val-every", type=int, default=10, help="every N-th image goes to val (0: none)")
    ap.add_argument("--start", type=int, default=0, help="first image index (to extend a dataset)")
    ap.add_argument("--max-distractor-crops", type=int, default=4)
    ap.add_argument("--crop-size", type=int, default=64, help="crop side in pixels (vision.crops.crop_tile size)")
    ap.add_argument("--crop-margin", type=float, default=0.10, help="crop margin, fraction of the box per side")
    ap.add_argument("--crop-resize", default="stretch", choices=["stretch", "letterbox"])
    ap.add_argument("--close", action="store_true",
                    help="with --crops-only: small grids of large, sharp, nearly head-on tiles (close-up photos)")
    ap.add_argument("--span", type=float, nargs=2, metavar=("LO", "HI"), default=None,
                    help="hands: in 80%% of the images the concealed row spans LO..HI of the image width")
    ap.add_argument("--upright-crops", action="store_true",
                    help="turn every crop by quarter turns so its glyph is upright (for a classifier with "
                         "metadata rotation 'upright'); the turn is in the file name: NNNNNN_k_r<deg>.png")
    ap.add_argument("--face-crops", type=float, default=0.0,
                    help="fraction of crops whose box is the face cap's bounding box (not the whole tile)")
    ap.add_argument("--wide-styles", type=float, default=0.0,
                    help="share of tile sets drawn with the 'wide' procedural styles (faces.wide_art; validation "
                         "renders use held-out wide styles); 0 (default) leaves renders as before")
    ap.add_argument("--extra-art", type=float, default=0.0,
                    help="share of tile sets drawn from the extra art sets of datasets.extra_art (KDE/GNOME "
                         "tilesets, split evenly); 0 (default) leaves renders as before")
    from .hard import CLUTTER, KINDS

    ap.add_argument("--hard", default=None, choices=list(KINDS) + ["mixed"],
                    help="hard scenes (datasets/hard.py): one kind, or 'mixed' (every kind in turn); off by default")
    ap.add_argument("--clutter", default=None, type=lambda t: [c for c in t.split(",") if c],
                    help=f"with --hard: comma-separated clutter kinds ({','.join(CLUTTER)})")
    ap.add_argument("--hard-split", default=None, choices=["train", "val"],
                    help="with --hard: palettes for training (train, the default) or the held-out ones (val)")
    ap.add_argument("--bonus-columns", type=float, default=0.0,
                    help="share of hand renders with 2-8 bonus tiles lying sideways in touching columns "
                         "(scene.bonus_in_columns); 0: none")
    a = ap.parse_args(argv)
    if a.clutter and any(c not in CLUTTER for c in a.clutter):
        ap.error(f"--clutter: unknown kind in {','.join(a.clutter)} (from {','.join(CLUTTER)})")
    if (a.clutter or a.hard_split) and not a.hard:
        ap.error("--clutter and --hard-split need --hard")
    if not 0 <= a.extra_art <= 1 or not 0 <= a.wide_styles <= 1 or not 0 <= a.bonus_columns <= 1:
        ap.error("--extra-art, --wide-styles and --bonus-columns are shares between 0 and 1")
    W, H = (int(v) for v in a.size.lower().split("x"))
    out: Path = a.out
    for sub in (["crops"] if a.crops_only else ["images", "labels", "meta", "crops"]):
        for split in ("train", "val"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
    if not a.crops_only:
        write_data_yaml(out, a.det_classes)
    from . import faces

    srcs = faces.available_sources()
    if a.wide_styles > 0 and faces.cjk_fonts():
        srcs = _with_share(srcs, a.wide_styles, ["wide"])
    if a.extra_art > 0:
        extra = faces.extra_sources()
        if not extra:
            print("error: --extra-art: no extra art sets; run python -m datasets.extra_art first", file=sys.stderr)
            return 2
        srcs = _with_share(srcs, a.extra_art, sorted(extra))
    if not srcs:
        print("error: no tile art (install a CJK font, e.g. fonts-wqy-zenhei, or provide ../shared)", file=sys.stderr)
        return 2
    # what decides the content of image i besides i: recorded once, checked when a set is extended
    record = {k: v for k, v in sorted(vars(a).items()) if k not in ("out", "images", "workers", "start")}
    if not a.wide_styles:  # off: the record of sets rendered before the option existed stays valid
        del record["wide_styles"]
    else:  # 2: seasons may show any flower plant (faces.WideStyle.bonus_any_plant); a set of version 1
        record["wide_faces"] = faces.WIDE_FACES_VERSION  # (no key) is not extended with changed faces
    if not a.extra_art:
        del record["extra_art"]
    if not a.bonus_columns:
        del record["bonus_columns"]
    record["art_sources"] = sorted(srcs)
    rec_path = out / ARGS_FILE
    if rec_path.exists():
        old = json.loads(rec_path.read_text())
        diff = sorted(k for k in set(old) | set(record) if old.get(k) != record.get(k))
        if diff:
            print(f"error: {out} was rendered with other options ({', '.join(f'{k}: {old.get(k)!r} there, {record.get(k)!r} now' for k in diff)}); "
                  "use another --out", file=sys.stderr)
            return 2
    else:
        rec_path.write_text(json.dumps(record, indent=1) + "\n")
    opts = {"out": str(out), "W": W, "H": H, "seed": a.seed, "det": a.det_classes, "crops_only": a.crops_only,
            "crops": not a.no_crops, "val_every": a.val_every, "max_distractor_crops": a.max_distractor_crops,
            "crop_size": a.crop_size, "crop_margin": a.crop_margin, "crop_resize": a.crop_resize,
            "close": a.close, "span": tuple(a.span) if a.span else None, "upright": a.upright_crops,
            "face_crops": a.face_crops, "hard": a.hard, "clutter": a.clutter, "hard_split": a.hard_split,
            "bonus_columns": a.bonus_columns, "sources": srcs if a.wide_styles > 0 or a.extra_art > 0 else None}
    idx = range(a.start, a.start + a.images)
    from tqdm import tqdm

    done_path = out / DONE_FILE
    if not done_path.exists() and a.start > 0:
        # a folder rendered before done.txt existed, continued here: the images before --start whose
        # files are there count as done (what the folder said before), or the new done.txt would
        # list only the images from --start on and the set would be rendered again from image 0
        done_path.write_text("".join(f"{i}\n" for i in sorted(images_with_files(out)) if i < a.start))
    t0 = time.time()
    tot = {"tiles": 0, "crops": 0}
    if a.workers <= 1:
        _init(opts)
        it = map(render_one, idx)
        pool = None
    else:
        pool = mp.get_context("fork" if os.name != "nt" else "spawn").Pool(a.workers, _init, (opts,))
        it = pool.imap_unordered(render_one, idx, chunksize=2)
    try:
        with open(done_path, "a") as done:
            for c in tqdm(it, total=a.images, unit="img", desc="synth"):
                for k in tot:
                    tot[k] += c[k]
                done.write(f"{c['index']}\n")  # every file of image c['index'] is written
                done.flush()
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    dt = time.time() - t0
    print(f"{a.images} images in {dt:.1f} s ({a.images / max(dt, 1e-9):.2f} img/s), {tot['tiles']} tile boxes, "
          f"{tot['crops']} crops, art sources: {', '.join(sorted(srcs))} → {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
