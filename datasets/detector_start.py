"""Start the tile/back detector from the real-photo weights of PyPI ``mahjong-detector`` (issue 18, item 2).

``mahjong-detector`` 0.0.6 (MIT) ships ``model.onnx``: an ultralytics YOLO11n (metadata: ultralytics
8.3.40, 640 px, 34 riichi classes) trained on real photos. Its ONNX export keeps ultralytics' parameter
names with each batch norm folded into the convolution before it (``model.N....conv.weight`` and
``.conv.bias``). :func:`build_start` builds a 2-class (``tile``, ``back``) YOLO11n and copies every
folded convolution whose shape matches into it: the convolution gets the weight, its batch norm becomes
the identity plus that bias (weight 1, running mean 0, running variance 1 − eps, bias = the folded
bias), so the network computes what the ONNX computes. Only the class branch of the head (34 → 2
outputs) keeps its fresh weights.

    python -m datasets.detector_start --out runs/md-start.pt [--onnx PATH]

Needs the ``train`` extra (torch, ultralytics, onnx, mahjong-detector). The result is a checkpoint that
``python -m datasets.train --stage detector --arch yolo11n --init runs/md-start.pt`` trains from.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


class StartError(ValueError):
    """The ONNX file is not a YOLO11n export whose parameters can be matched."""


def mahjong_detector_onnx() -> Path:
    """Path of ``model.onnx`` inside the installed ``mahjong-detector`` package.

    Raises StartError when the package is not installed."""
    try:
        import mahjong_detector
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise StartError("mahjong-detector is not installed (pip install mahjong-detector==0.0.6)") from e
    p = Path(mahjong_detector.__file__).parent / "model.onnx"
    if not p.exists():
        raise StartError(f"no model.onnx in {p.parent}")
    return p


def folded_params(onnx_path: Path) -> dict[str, "object"]:
    """The named initializers of an ultralytics ONNX export as numpy arrays: ``{name: array}`` for names
    ending in ``.weight`` / ``.bias`` (anonymous constants left out)."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(str(onnx_path))
    return {i.name: numpy_helper.to_array(i) for i in m.graph.initializer
            if i.name.startswith("model.") and i.name.rsplit(".", 1)[-1] in ("weight", "bias")}


def load_folded(model, params: dict) -> tuple[int, int]:
    """Copy folded conv weights into ``model`` (a torch ``nn.Module`` of ultralytics ``Conv`` blocks with
    ``conv``/``bn``, and plain ``nn.Conv2d`` layers in the head). Returns ``(copied, skipped)`` counts of
    ONNX convolutions (skipped: no such module or another shape)."""
    import numpy as np
    import torch

    mods = dict(model.named_modules())
    copied = skipped = 0
    for name, w in params.items():
        if not name.endswith(".weight"):
            continue
        base = name[: -len(".weight")]
        conv = mods.get(base)
        b = params.get(base + ".bias")
        if conv is None or not hasattr(conv, "weight") or tuple(conv.weight.shape) != tuple(w.shape):
            skipped += 1
            continue
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            parent = mods.get(base.rsplit(".", 1)[0]) if base.endswith(".conv") else None
            bn = getattr(parent, "bn", None) if parent is not None else None
            if bn is not None and b is not None:
                bn.weight.fill_(1.0)
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
                bn.bias.copy_(torch.from_numpy(np.array(b)))
            elif b is not None and getattr(conv, "bias", None) is not None and conv.bias.shape == b.shape:
                conv.bias.copy_(torch.from_numpy(np.array(b)))
        copied += 1
    return copied, skipped


def build_start(out: Path, onnx_path: Path | None = None) -> Path:
    """Write an ultralytics checkpoint at ``out``: YOLO11n, classes ``tile``/``back``, with the
    mahjong-detector weights wherever the shapes match (see the module docstring). Returns ``out``.

    Raises StartError when fewer than 60 convolutions could be copied (not a YOLO11n export)."""
    from . import train

    train.setup_ultralytics()
    import numpy as np
    import torch

    params = folded_params(onnx_path or mahjong_detector_onnx())
    from ultralytics.nn.tasks import DetectionModel

    net = DetectionModel("yolo11n.yaml", nc=2, verbose=False)
    copied, skipped = load_folded(net, params)
    if copied < 60:
        raise StartError(f"only {copied} convolutions matched ({skipped} skipped): not a YOLO11n export")
    net.names = {0: "tile", 1: "back"}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": net.half(), "train_args": {}, "epoch": -1, "date": train._today(),
                "source": "mahjong-detector 0.0.6 model.onnx (MIT)"}, out)
    print(f"{out}: {copied} convolutions from mahjong-detector, {skipped} kept fresh", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m datasets.detector_start", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--onnx", type=Path, default=None, help="default: the installed mahjong-detector's model.onnx")
    a = ap.parse_args(argv)
    try:
        build_start(a.out, a.onnx)
    except StartError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
